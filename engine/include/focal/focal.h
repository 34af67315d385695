// Everything an application needs: load a model, make a session, run it.
#pragma once

#include "focal/model.h"
#include "focal/self_test.h"
#include "focal/session.h"
#include "focal/status.h"
#include "focal/tensor.h"
