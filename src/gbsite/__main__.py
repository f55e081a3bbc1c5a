from gbsite.cli import run

run()
