// Expected ids of tokenizer.json files from @huggingface/tokenizers (the tokenizers
// library's JavaScript port), run by make_hf_references.py once, offline, on local files:
// reads [{name, file, cases: [{text, pair?}]}] on stdin, writes them back with "ids" (the
// post-processor's special tokens added) and "plain" (the text alone, none added); a job
// with "decode": true also gets "decoded", the decoder's text of "plain" (special tokens
// kept, no clean-up of spaces), for make_real_references.py.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(process.env.NODE_PATH + "/");
const { Tokenizer } = require("@huggingface/tokenizers");

const jobs = JSON.parse(readFileSync(0, "utf8"));
for (const job of jobs) {
  const tokenizer = new Tokenizer(JSON.parse(readFileSync(job.file, "utf8")), {});
  for (const c of job.cases) {
    c.ids = tokenizer.encode(c.text, { text_pair: c.pair ?? null, add_special_tokens: true }).ids;
    c.plain = tokenizer.encode(c.text, { add_special_tokens: false }).ids;
    if (job.decode) {
      c.decoded = tokenizer.decode(c.plain, { skip_special_tokens: false, clean_up_tokenization_spaces: false });
    }
  }
}
process.stdout.write(JSON.stringify(jobs));
