"""Structured fuzzing of ccscope's scenario input: `gen` makes cases (deterministic from a seed
and an index), `worker` runs them under a memory limit, `fuzzer` drives workers, classifies
outcomes and writes failing cases for reproduction (`python -m tests.fuzz.fuzzer --help`)."""
