"""Exit 0 when the installed llama.cpp evaluates a real prompt; a crash (exit 139) says it does not.

A wheel pip cached from a native build on an Intel CPU with AMX faults in ``ldtilecfg`` on a
machine that does not grant AMX to processes; .ci/run rebuilds llama-cpp-python when this fails.
"""

import llama_cpp

from arena.players.llm.local_models import model_file

llama = llama_cpp.Llama(model_path=str(model_file("smollm2")), n_ctx=1024, verbose=False)
prompt = " ".join(["Ann accuses Bob of being mafia, and Cid votes to execute Dee."] * 20)
llama.create_completion(prompt, max_tokens=4, temperature=0.0)
print("llama.cpp evaluates a prompt")
