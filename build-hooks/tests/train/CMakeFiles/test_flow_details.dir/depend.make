# Empty dependencies file for test_flow_details.
# This may be replaced when dependencies are built.
