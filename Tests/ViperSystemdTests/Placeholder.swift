// Placeholder until the target's first test lands.
