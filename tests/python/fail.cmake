# A test that must fail with a message: cmake -DMESSAGE=... -P fail.cmake
message(FATAL_ERROR "${MESSAGE}")
