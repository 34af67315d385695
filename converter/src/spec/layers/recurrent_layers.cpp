// {"op": "recurrent"}: an LSTM or GRU over a sequence (RecurrentOptions), and
// {"op": "recurrent_step"}: one step of a cell from a given state (RecurrentStepOptions).
// Weights are PyTorch's: w_ih [G*H, In], w_hh [G*H, H] (in the layer's weight layout),
// gates in PyTorch's order, G = 4 (LSTM) or 3 (GRU).
#include <tuple>

#include "spec/spec_layers.h"

namespace focal {
namespace convert {
namespace spec {
namespace {

struct Cell {
  fb::RecurrentCell kind;
  int64_t gates;
};

Result<Cell> cell_of(const Layer& l) {
  const std::string cell = l.text_or("cell", "lstm");
  if (cell != "lstm" && cell != "gru") return l.fail("cell must be lstm or gru");
  return cell == "lstm" ? Cell{fb::RecurrentCell_Lstm, 4} : Cell{fb::RecurrentCell_Gru, 3};
}

// One direction's weights and biases; `hidden` comes from w_ih's rows.
struct Direction {
  int w_ih = -1, w_hh = -1, b_ih = -1, b_hh = -1;
  int64_t hidden = 0;
};

Result<Direction> direction(const Layer& l, const Cell& cell, int64_t in) {
  Direction d;
  const std::string ih = l.text("w_ih"), hh = l.text("w_hh");
  FOCAL_SPEC_ASSIGN(const Matrix w_ih, l.dense_weight(ih, in));
  if (w_ih.shape[0] % cell.gates != 0) return l.fail(ih + " rows must be a multiple of the cell's gates");
  d.hidden = w_ih.shape[0] / cell.gates;
  FOCAL_SPEC_ASSIGN(const Matrix w_hh, l.dense_weight(hh, d.hidden));
  if (w_hh.shape[0] != w_ih.shape[0]) return l.fail(hh + " must have as many rows as " + ih);
  d.w_ih = l.c.b.constant(ih, w_ih);
  d.w_hh = l.c.b.constant(hh, w_hh);
  d.b_ih = l.bias("b_ih", w_ih.shape[0]);
  d.b_hh = l.bias("b_hh", w_ih.shape[0]);
  return d;
}

// Final states h_n and c_n [B, dirs*H], named by the layer's "h_n" and "c_n" fields
// (activations, or declared states they write); h_n is made (unnamed) whenever c_n is
// asked for, as outputs go in order.
Result<std::vector<int32_t>> final_states(const Layer& l, const Cell& cell, GraphBuilder::Dim batch, int64_t width) {
  std::vector<int32_t> outputs;
  const bool c_n = cell.kind == fb::RecurrentCell_Lstm && l.has("c_n");
  if (!l.has("h_n") && !c_n) return outputs;
  const std::vector<GraphBuilder::Dim> dims = {batch, {width, -1}};
  FOCAL_SPEC_ASSIGN(int h_n, l.extra_output("h_n", dims));
  outputs.push_back(h_n >= 0 ? h_n : l.c.b.activation(l.name + ".h_n", dims));
  if (!c_n) return outputs;
  FOCAL_SPEC_ASSIGN(const int c, l.extra_output("c_n", dims));
  outputs.push_back(c);
  return outputs;
}

// The step's state: h (and c for an LSTM) [B, H].
struct StepState {
  int h = -1, c = -1;
};

// "state": {"h": name, "c": name}: declared f32 states [B, H] the step updates in place,
// so they carry from one run to the next (a decoder's state across stages and tokens).
Result<StepState> declared_step_state(const Layer& l, const Cell& cell, GraphBuilder::Dim batch, int64_t hidden) {
  const Layer named{l.c, l.spec, l.fields.at("state"), l.name};
  const std::vector<GraphBuilder::Dim> want = {batch, {hidden, -1}};
  const auto state = [&](const char* key) -> Result<int> {
    const std::string name = named.text(key);
    const int t = l.c.state_named(name);
    if (t < 0) return l.fail("\"state\" names '" + name + "', which is not a declared state (list it under \"state\")");
    if (l.c.describe(l.c.b.dims(t)) != l.c.describe(want) || l.c.int_tensors.count(t)) {
      return l.fail("state '" + name + "' is " + l.c.describe(l.c.b.dims(t)) + ", the step needs f32 " +
                    l.c.describe(want));
    }
    return t;
  };
  StepState s;
  FOCAL_SPEC_ASSIGN(s.h, state("h"));
  if (cell.kind == fb::RecurrentCell_Lstm) {
    FOCAL_SPEC_ASSIGN(s.c, state("c"));
  }
  return s;
}

// "h0" (and "c0"): the layer's own states ("<name>.h", "<name>.c"), set from them at every
// run, so each run is one step from the given state.
Result<StepState> copied_step_state(const Layer& l, const Cell& cell, int64_t hidden) {
  const auto state_from = [&](const char* key, const char* suffix) -> Result<int> {
    FOCAL_SPEC_ASSIGN(const int initial, l.tensor(key));
    FOCAL_SPEC_ASSIGN(const int64_t width, l.width(initial));
    if (width != hidden) return l.fail(std::string("\"") + key + "\" must be [B, " + std::to_string(hidden) + "]");
    const int state = l.c.b.state(l.name + suffix, DType::kF32, l.c.b.dims(initial));
    return l.c.b.copy(l.name + suffix + "0", initial, state);
  };
  StepState s;
  FOCAL_SPEC_ASSIGN(s.h, state_from("h0", ".h"));
  if (cell.kind == fb::RecurrentCell_Lstm) {
    FOCAL_SPEC_ASSIGN(s.c, state_from("c0", ".c"));
  }
  return s;
}

}  // namespace

Result<int> recurrent_layer(const Layer& l) {
  ModelWriter::RecurrentSpec s;
  FOCAL_SPEC_ASSIGN(s.x, l.tensor("input"));
  FOCAL_SPEC_ASSIGN(s.mask, l.optional_tensor("mask"));
  FOCAL_SPEC_ASSIGN(const Cell cell, cell_of(l));
  std::vector<GraphBuilder::Dim> x;
  if (!l.c.b.has_rank(l.name, s.x, 3, &x)) return -1;  // [B, S, In]
  FOCAL_SPEC_ASSIGN(const Direction forward, direction(l, cell, x[2].size));
  std::tie(s.w_ih, s.w_hh, s.b_ih, s.b_hh) = std::tie(forward.w_ih, forward.w_hh, forward.b_ih, forward.b_hh);
  int64_t width = forward.hidden;
  if (l.has("reverse")) {
    FOCAL_SPEC_ASSIGN(const Direction r, direction(Layer{l.c, l.spec, l.fields.at("reverse"), l.name}, cell, x[2].size));
    if (r.hidden != forward.hidden) return l.fail("the reverse direction's hidden size differs");
    std::tie(s.w_ih_r, s.w_hh_r, s.b_ih_r, s.b_hh_r) = std::tie(r.w_ih, r.w_hh, r.b_ih, r.b_hh);
    width *= 2;
  }
  FOCAL_SPEC_ASSIGN(s.h0, l.optional_tensor("h0"));
  FOCAL_SPEC_ASSIGN(s.c0, l.optional_tensor("c0"));
  s.cell = cell.kind;
  s.hidden = static_cast<int>(forward.hidden);
  FOCAL_SPEC_ASSIGN(const int y, l.output_tensor({x[0], x[1], {width, -1}}));
  FOCAL_SPEC_ASSIGN(std::vector<int32_t> outputs, final_states(l, cell, x[0], width));
  outputs.insert(outputs.begin(), y);
  if (l.c.b.status().ok()) l.c.b.writer().add_recurrent(l.name, s, std::move(outputs));
  return y;
}

// The state: declared states named by "state" (updated in place, carried across runs),
// or the layer's own set from "h0" (and "c0") at every run. "reset_cell": true starts
// every step of an LSTM from a zero cell state (the h state still carries).
Result<int> recurrent_step_layer(const Layer& l) {
  FOCAL_SPEC_ASSIGN(const int x, l.tensor("input"));
  FOCAL_SPEC_ASSIGN(const Cell cell, cell_of(l));
  std::vector<GraphBuilder::Dim> xd;
  if (!l.c.b.has_rank(l.name, x, 2, &xd)) return -1;  // [B, In]
  const bool reset_cell = l.fields.value("reset_cell", false);
  if (reset_cell && cell.kind != fb::RecurrentCell_Lstm) {
    return l.fail("\"reset_cell\" is for an LSTM (a GRU has no cell state)");
  }
  if (l.has("state") == (l.has("h0") || l.has("c0"))) {
    return l.fail("give \"state\": {\"h\", \"c\"} (declared states, carried across runs) or \"h0\"/\"c0\" "
                  "(copied at every run)");
  }
  FOCAL_SPEC_ASSIGN(const Direction d, direction(l, cell, xd[1].size));
  FOCAL_SPEC_ASSIGN(const StepState state, l.has("state") ? declared_step_state(l, cell, xd[0], d.hidden)
                                                         : copied_step_state(l, cell, d.hidden));
  FOCAL_SPEC_ASSIGN(const int y, l.output_tensor({xd[0], {d.hidden, -1}}));
  if (y == state.h || y == state.c) return l.fail("the step's output must not be its own state (it writes both)");
  if (l.c.b.status().ok()) {
    l.c.b.writer().add_recurrent_step(l.name, cell.kind, static_cast<int>(d.hidden), x, d.w_ih, d.w_hh, d.b_ih, d.b_hh,
                                      state.h, state.c, y, reset_cell);
  }
  return y;
}

}  // namespace spec
}  // namespace convert
}  // namespace focal
