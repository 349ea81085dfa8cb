from table.cli import main

raise SystemExit(main())
