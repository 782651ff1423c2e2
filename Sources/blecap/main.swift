import BlecapCLI

Blecap.main()
