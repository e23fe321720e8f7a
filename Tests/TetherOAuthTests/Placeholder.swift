import Testing

@Test func oauthPlaceholder() {}
