"""A tiny users API: handlers take a request and return (status, body)."""
