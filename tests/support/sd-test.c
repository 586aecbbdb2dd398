int sd_test_failures;
