from manifold.cli import main

main()
