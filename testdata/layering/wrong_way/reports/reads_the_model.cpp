// Fixture for the architecture.layers_refuse test: a renderer (reports/) that reads the model,
// which cmake/check_layers.cmake must refuse (renderers read the report document).
#include "model/model.h"
