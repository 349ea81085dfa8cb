"""The table service: buttons, display and camera around the referee, one event loop."""
