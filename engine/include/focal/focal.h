// Everything an application needs: load a model, make a session, run it.
#pragma once

#include "focal/attention.h"
#include "focal/attention_scoring.h"
#include "focal/gemm.h"
#include "focal/generate.h"
#include "focal/translate.h"
#include "focal/model.h"
#include "focal/self_test.h"
#include "focal/session.h"
#include "focal/status.h"
#include "focal/tensor.h"
#include "focal/tokenizer.h"
