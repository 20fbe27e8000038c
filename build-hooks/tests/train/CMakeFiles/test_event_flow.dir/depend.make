# Empty dependencies file for test_event_flow.
# This may be replaced when dependencies are built.
