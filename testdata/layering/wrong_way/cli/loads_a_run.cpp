// Fixture for the architecture.layers_refuse test: a command (cli/) that loads a run itself,
// which cmake/check_layers.cmake must refuse (the CLI goes through pipeline/).
#include "loaders/run_loader.h"
