import BlecapCLI

Blecap.run()
