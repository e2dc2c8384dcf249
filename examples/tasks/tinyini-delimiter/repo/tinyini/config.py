"""In-memory representation of a parsed INI file."""

_BOOLEANS = {
    "1": True, "yes": True, "true": True, "on": True,
    "0": False, "no": False, "false": False, "off": False,
}

_MISSING = object()


class Section:
    """The keys of one [section]. Keys are case-insensitive."""

    def __init__(self, name):
        self.name = name
        self._values = {}

    def __getitem__(self, key):
        return self._values[key.lower()]

    def __setitem__(self, key, value):
        self._values[key.lower()] = value

    def __contains__(self, key):
        return key.lower() in self._values

    def __iter__(self):
        return iter(self._values)

    def __len__(self):
        return len(self._values)

    def get(self, key, default=None):
        return self._values.get(key.lower(), default)

    def _typed(self, key, default, convert):
        raw = self.get(key, _MISSING)
        if raw is _MISSING:
            if default is _MISSING:
                raise KeyError(key)
            return default
        try:
            return convert(raw)
        except ValueError:
            raise ValueError(f"[{self.name}] {key}: cannot convert {raw!r}") from None

    def getint(self, key, default=_MISSING):
        return self._typed(key, default, int)

    def getfloat(self, key, default=_MISSING):
        return self._typed(key, default, float)

    def getboolean(self, key, default=_MISSING):
        def convert(raw):
            try:
                return _BOOLEANS[raw.lower()]
            except KeyError:
                raise ValueError(raw) from None

        return self._typed(key, default, convert)

    def getlist(self, key, default=_MISSING, sep=","):
        return self._typed(key, default, lambda raw: [p.strip() for p in raw.split(sep) if p.strip()])

    def to_dict(self):
        return dict(self._values)


class Config:
    """All sections of a file, in the order they first appeared."""

    def __init__(self):
        self._sections = {}

    def add_section(self, name):
        if name not in self._sections:
            self._sections[name] = Section(name)
        return self._sections[name]

    def __getitem__(self, name):
        return self._sections[name]

    def __contains__(self, name):
        return name in self._sections

    def sections(self):
        return list(self._sections)

    def get(self, section, key, default=None):
        if section not in self._sections:
            return default
        return self._sections[section].get(key, default)

    def to_dict(self):
        return {name: s.to_dict() for name, s in self._sections.items()}
