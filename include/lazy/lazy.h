// lazyfuse: eager-looking tensor code, recorded and run fused.
#pragma once

#include "lazy/cache.h"
#include "lazy/config.h"
#include "lazy/dtype.h"
#include "lazy/error.h"
#include "lazy/factories.h"
#include "lazy/indexing.h"
#include "lazy/linalg.h"
#include "lazy/ops.h"
#include "lazy/ordering.h"
#include "lazy/reductions.h"
#include "lazy/scalar.h"
#include "lazy/scans.h"
#include "lazy/shape.h"
#include "lazy/stats.h"
#include "lazy/sync.h"
#include "lazy/tensor.h"
