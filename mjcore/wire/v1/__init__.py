"""Generated from proto/mjcore/v1 by scripts/gen_proto.py; do not edit."""
