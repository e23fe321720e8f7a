import Testing

@Test func devProviderPlaceholder() {}
