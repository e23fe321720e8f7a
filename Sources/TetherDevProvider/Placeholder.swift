enum TetherDevProviderPlaceholder {}
