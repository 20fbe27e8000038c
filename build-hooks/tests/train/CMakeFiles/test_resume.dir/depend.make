# Empty dependencies file for test_resume.
# This may be replaced when dependencies are built.
