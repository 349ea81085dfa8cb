"""Adapters: the only modules that import hardware libraries (gpiozero, luma, picamera2).

Each is built in one place (``table.hw.build``) from the config and handed in.
"""
