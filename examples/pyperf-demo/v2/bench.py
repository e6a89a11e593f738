"""rigorbench's pyperf demo, version 2: a slower sum of squares (through float math.pow and
back to int) and a faster join (str.join instead of repeated +=) than version 1."""

import math

import pyperf

WORDS = ["benchmark"] * 300


def sum_squares(n: int) -> int:
    return sum(int(math.pow(i, 2)) for i in range(n))


def join_words(words: list[str]) -> str:
    return ",".join(words) + ","


if __name__ == "__main__":
    runner = pyperf.Runner()
    runner.bench_func("sum_squares", sum_squares, 2000)
    runner.bench_func("join_words", join_words, WORDS)
