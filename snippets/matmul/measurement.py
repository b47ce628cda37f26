"""Placeholder: replaced once the benchmark result format exists."""


def reading() -> str:
    return "No GPU measurement of matmul has been published yet."


if __name__ == "__main__":
    print(reading())
