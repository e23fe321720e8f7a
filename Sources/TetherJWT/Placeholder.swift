enum TetherJWTPlaceholder {}
