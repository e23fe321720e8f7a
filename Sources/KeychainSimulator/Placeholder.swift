public enum KeychainSimulatorPlaceholder {}
