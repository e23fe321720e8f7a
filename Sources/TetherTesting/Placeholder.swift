public enum TetherTestingPlaceholder {}
