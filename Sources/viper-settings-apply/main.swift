import ViperApply

await ApplyCommand.start()
