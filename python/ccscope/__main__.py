from ccscope.cli import main

main()
