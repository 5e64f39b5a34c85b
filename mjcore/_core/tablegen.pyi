# Typed surface of the table generator run by setup.py.
TABLE_FILE: str
MAGIC: bytes

def write_tables(directory: str) -> str: ...
