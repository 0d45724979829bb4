from pystats import mean, total


def test_total():
    assert total([1, 2, 3]) == 6.0
    assert total([]) == 0.0


def test_mean():
    assert mean([1, 2, 3, 6]) == 3.0


def test_mean_of_nothing():
    assert mean([]) == 0.0
