"""Final prices at the checkout."""

MEMBER_DISCOUNT = 0.10
DISCOUNT_FROM = 100  # euros


def final_price(total: float, is_member: bool) -> float:
    """What the customer pays for an order of `total` euros."""
    # The shop promises members 10% off "from 100 euros": an order of exactly 100 counts.
    if is_member and total > DISCOUNT_FROM:
        return round(total * (1 - MEMBER_DISCOUNT), 2)
    return total
