from ccscope._entry import main

main()
