"""A pure-Python stand-in for rpds-py (no WebAssembly wheel), shipped only in the browser edition.

`referencing` (which jsonschema uses) needs three immutable collections from it. These copy on
every change, where rpds-py shares structure: slower on big registries, the same results on the
few schemas a tool has.
"""

__all__ = ["HashTrieMap", "HashTrieSet", "List"]


class HashTrieMap(dict):
    """an immutable mapping: insert, remove and update return a new one"""

    @classmethod
    def convert(cls, value):
        return value if isinstance(value, cls) else cls(value)

    def insert(self, key, value):
        new = HashTrieMap(self)
        dict.__setitem__(new, key, value)
        return new

    def remove(self, key):
        new = HashTrieMap(self)
        dict.__delitem__(new, key)  # KeyError when absent, as rpds
        return new

    def discard(self, key):
        return self.remove(key) if key in self else self

    def update(self, *others, **more):
        new = HashTrieMap(self)
        for other in (*others, more):
            dict.update(new, other)
        return new

    def __hash__(self) -> int:  # type: ignore[override]  # immutable, so hashable, unlike dict
        return hash(frozenset(self.items()))

    def _immutable(self, *args, **kwargs):
        raise TypeError("HashTrieMap is immutable: insert() returns a new one")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = _immutable


class HashTrieSet(frozenset):
    """an immutable set: insert, discard, remove and update return a new one"""

    def insert(self, value):
        return HashTrieSet(self | {value})

    def discard(self, value):
        return HashTrieSet(self - {value})

    def remove(self, value):
        if value not in self:
            raise KeyError(value)
        return self.discard(value)

    def update(self, *others):
        return HashTrieSet(self.union(*others))


class List(tuple):
    """an immutable linked list: push_front returns a new one"""

    def __new__(cls, *items):
        if len(items) == 1 and not isinstance(items[0], (str, bytes)) and hasattr(items[0], "__iter__"):
            items = tuple(items[0])
        return super().__new__(cls, items)

    def push_front(self, value):
        return List((value, *self))

    @property
    def first(self):
        return self[0]

    @property
    def rest(self):
        return List(self[1:])
