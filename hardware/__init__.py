"""hardware: slap pads, call buttons, LEDs and a buzzer on gpiozero (see docs/HARDWARE.md)."""
