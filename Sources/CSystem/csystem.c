// Headers only; this file exists so SwiftPM builds the target.
#include "csystem.h"
