#include "CMallocTuning.h"
