from manifold.entry import main

main()
