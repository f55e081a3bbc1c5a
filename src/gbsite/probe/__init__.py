"""The reachability probe: programs that try to reach graph breaks from user code, run against
each torch release of the examples, and a report of which ids they reached (tools/probe/)."""
