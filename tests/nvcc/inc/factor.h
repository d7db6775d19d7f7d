// Fixture header: found only through -I (tests/nvcc_wrapper.sh checks -I/-D reach the baseline run).
#ifndef FACTOR
#error "FACTOR must be defined with -D"
#endif
