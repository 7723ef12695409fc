// CContract is a header-only module (include/biomatimer_contract.h); SwiftPM needs one source.
#include "biomatimer_contract.h"
