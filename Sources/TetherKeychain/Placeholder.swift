// Keychain store: see KeychainStore.swift
