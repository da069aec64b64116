// Fixture for the architecture.layers_refuse test: a diagnostic (facts/) that includes a loader,
// which cmake/check_layers.cmake must refuse.
#include "loaders/communication/communication_files.h"
