from gbsite.cli import main

raise SystemExit(main())
