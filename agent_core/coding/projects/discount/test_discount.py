from discount import final_price


def test_members_get_ten_percent_off_big_orders():
    assert final_price(150, is_member=True) == 135


def test_non_members_pay_the_full_price():
    assert final_price(150, is_member=False) == 150


def test_small_orders_pay_the_full_price():
    assert final_price(99.99, is_member=True) == 99.99


def test_discount_starts_at_exactly_100():
    assert final_price(100, is_member=True) == 90
