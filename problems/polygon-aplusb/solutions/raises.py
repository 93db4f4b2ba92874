raise SystemExit("refusing to add")
