// Test-only keys and certificates, generated once with OpenSSL 3.0:
//   openssl genrsa -out rsaA.pem 2048; openssl genrsa -out rsaB.pem 2048
//   openssl req -new -x509 -key rsaA.pem -out certA.pem -days 36500 -subj "/CN=securetoken.test.invalid"
//   openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt  (then a certificate as above)
// They sign nothing outside these tests. Certificate validity dates are not checked by the validator.

package enum Fixtures {
    /// An RSA-2048 private key.
    package static let rsaPrivateKeyA = """
        -----BEGIN PRIVATE KEY-----
        MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDBjJHpzEwW1M+i
        Wd7msiuY/DA0jfWTD9TaqGwDL/ba4qmjZv8rK0nNzDnIIkPpH1Z66omYZmm2HY1w
        4+/OzpTTYGCX/gTsMceO3rXYWyD9+f5ds/Y4pmsN/P9o6GxuWQ+lnd2y5A6svNha
        TB9hOangTXdboXjoyVm5/uoJYB7JBTgugNRBzvRFGrLMbOaq8bYDWJ32Y/B1OeAn
        kf2kuV2RfaQUZn1W0v/RXTbWcY5Dn1zvuGJlXvxO/NkA2yfBxc5tNU+scInsJPmi
        hUs6o0GwIxMlKI7eADp0lm81oj7ASiGCZuET5LbJVOQolSPA7BDRIFJS6vgMGqEp
        dkr+EBLBAgMBAAECggEAI8LiTu2FfY5yks/CJKP09D5cdclo/3QkYwZNdsVM+iJ5
        L4zfRs2nxFOgtX7HR3KX2vws0jDSBWkuchZbf72ht/CNyGeR50ZHVfmGZeRokyS2
        v/95VfxBuYLueia/qh/giTxC80O6BmaaHw0Dm0Y5Qg1uKUsLeQ+C+Z/FBFhzN7bh
        xY3f/yy9uRbLXketePwtiMG/SdxH1RwZZvzBYGv3gw/L8+mbuofA7w+GQrAlJIb2
        FvuvWgUoRABNqJsZtPKEVTvD6Q9QoGVKMAsY8H9MWkoJK+kfnigYz9z8kuwFJxCE
        wuN/AJzOr8eUKXJtbEYu8gMsAj75OH78ueh97i4oxQKBgQDsBvofxWkcUMy2e2JJ
        IJHiu4b7cw+QW5PUe3Ayqz2P0Wv5/FYSNNT7M6LaBCUDGFTzlQXrAHCipLVj+Quj
        ELsCQizGzO3kFDR7R726uWyRw/aN+ojyvs+He3QuNRyJIjy+ANxnzRj17a+Txw4M
        kleOa++kg3r5BYUvfh4FBw0i6wKBgQDR7WUkYsJL8GdYcuNBafNxrCuyH6Lmkl3r
        +tEL6rg/gtDt8Uzeeg6FAtu3ffUw/Lw+kMKce3piWdMPcs/ULo2oACgd4XNZILsO
        ow49fc4Ker4cTolLa2kgO3VUeaDVCBU28+OF8Bl2Ysvl6a+0q3hYMW8Lmvx9zNes
        zcIcLOt+AwKBgBOguOgveIA8T+nU9OVz6e3a/mymsuKkWvTOlxP/nYz6M2qEi3vU
        HOoO7zoGIjXRri7bc7SJQtSjsdnwegFDgOm9KxAVNqtC6uJdou+GP/sXOsevz/ev
        2n4/y/eTvx3AVSDP3YRcT/kTnQhDA24UNWfInhMmQ/G1fc/nQwPUBEmlAoGAUxPw
        AwZSflsVixtsdGbJwSKx6Dw866LhKJKKSH0LjZbnuELWePU06c7HxUZD0q8ykFAZ
        tHPpayLBNEvrk70YsnPdbHXcgFlDrfc5m3w+HkeVFP6/tuk7IVZmiJfZ3nTkcGr0
        j/0FFqTirIpeztFNPxnRKHadleuLLwf+2cetKqECgYEAod1aI+2ZD/LfcZMu5ECz
        jVWNj15SIYOBhVSw8nK12RzGN5RjIzvLdajCYVGq8mUKke0kc4N626R9Qoit+cBZ
        GpX/RZk0x0wJPLtKABF5qLZVNi1mSisTXkZrMso2RB/fsQ1RQxLUk5WoYIEPL+sm
        Bjk3cHKROCBep9DQ8UuVIN4=
        -----END PRIVATE KEY-----
        """

    /// Another RSA-2048 private key (the impostor).
    package static let rsaPrivateKeyB = """
        -----BEGIN PRIVATE KEY-----
        MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDglrZJR8yT0yrb
        PU+Ob9urOtTHcWum5uwOx+Hkou3WXBZk2uTB/9yEVs2WZa/Cmnqycgaib5TVMUDW
        sZP+ODtQMJ+tB+EIJqP4OMEBRYP81E8Yqbsobo5vc41hZhYuE5Oje5EQle3qteEB
        JI1BUCs4nKhMXs6XMadpLyWblVU+O3IyRTma8ND5WfB6Pvc/dYGZ0tjOcjOZzx5l
        sSThmCKmTx5rfbTodZypt/6sqNSXWdctYu7gGz1XVxv+vhyIce667GOlAfIdBtnP
        fooKK2OrMxSUIwXipX/Rh4AbWK2oQu6NIJqAauflpQSwyCJ3M1vNqyeNCzAq65hX
        KhbdunFTAgMBAAECggEAbtoEvDPLppUefJsM9v2AG8qMdqqlW3p0PjFrbln68Yh/
        ZyVhrt2Wnt1nWRn0wCVWdVhxrOBNQlMusSlyJhLkN8bgMVwHtum3mg+NOA7zQCoc
        pkw0fBbhh+ItgMsOHIz+HL2jUt/l0CkYl2NOs1OaGbW9HgDXkGnqOzERq3LwYaex
        2IJH3kCtwAuVoRDRQXZVIy44DpOhKL6LiOml0+oTxKWx1cKPwWWXyEIkUPjCfldU
        10Bivd8Pc5K+m5BY+CIIWT7b9GJy8Iua230sL1dYziLqYufOxoim67SAlpPa5n58
        TkabhLIh4gLdyST/KsOP9Frt7zJNg/tbFzM07riTBQKBgQD7CN0iHeKzjacQtgEo
        XMdI/UDGKBSmruzkIUb8fcti3Cfb7CfekCG9J1265BiPMtl1jLESlcZIYMFwhEMh
        E2Z80F42M7CEhy1fWMDWnF7RKTDqlwYSCTHnPLJncrKgBZIYrBHQ7K2eR1zEtegH
        lhy60fFoclUTVGV6b5RjXEP7JwKBgQDlB+/i1weaBJJqyqkAY8APAuF2/WgfLJy/
        dQyQcH6k1ijGgx12HEPcjO4qg1GjtSOjlzpOjS74hwbKvZBz7Nb8nqlwmnbKrrMG
        VQrv0CSVWFzpDyrgOk7uOHTHqGNPaxlv6Y7i0AkRaVjZ7JWXd9x7htb9mMG3iSk5
        mHEcB/1j9QKBgQDocwu4xK2gD6HMUov94PNTvdYV5xVARyfqEnpV4PHM6Akslp9Q
        cmwbZ/Fd1kp7ht1gANgSWofRi25zjrVOUlWLa7JhRDnGbhlweZGO6BrQWPEHuLKR
        Ttxbv5N/QPDwRlhC6kpRCGe38WKQb9Sb+b8+qpp8Wao3jOWumtVvsAbu7wKBgD67
        qNJqcbOXMv+7WQU5TV8PO/Cawo1fa+PpTLK3jYja/Do7qbMzVMcxdv8ADzmXIRbr
        ElZ3x3jdi1e3Cr0mD1EMqH6mYIltxq2iV6eOTKb3mCNiOy1F617G6f3SOrmDLWmB
        ANlRgFpbj7HJYsQlWaggK/00fUMnd7pF7h1udtKNAoGAML13mwHjoiY8ICrK4apl
        OBYRoMreQ34clPezLHIjFDfAJQGEd+VXIk1tuUPooPV3rAj+HUxbNMBCmDVQwAqd
        n44JZxoDSfEADk3kvivVKGbwK2vvyOGF5AbqFJE9I7/BjOVh7YVN8SWQ/mr79+pC
        oOXdvytsRxbrv4vLXlfd9zQ=
        -----END PRIVATE KEY-----
        """

    /// A self-signed certificate for `rsaPrivateKeyA`.
    package static let rsaCertificateA = """
        -----BEGIN CERTIFICATE-----
        MIIDFjCCAf6gAwIBAgIBATANBgkqhkiG9w0BAQsFADAjMSEwHwYDVQQDDBhzZWN1
        cmV0b2tlbi50ZXN0LmludmFsaWQwIBcNMjYxMTIyMDA0MjI1WhgPMjEyNjEwMjkw
        MDQyMjVaMCMxITAfBgNVBAMMGHNlY3VyZXRva2VuLnRlc3QuaW52YWxpZDCCASIw
        DQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBAMGMkenMTBbUz6JZ3uayK5j8MDSN
        9ZMP1NqobAMv9triqaNm/ysrSc3MOcgiQ+kfVnrqiZhmabYdjXDj787OlNNgYJf+
        BOwxx47etdhbIP35/l2z9jimaw38/2jobG5ZD6Wd3bLkDqy82FpMH2E5qeBNd1uh
        eOjJWbn+6glgHskFOC6A1EHO9EUassxs5qrxtgNYnfZj8HU54CeR/aS5XZF9pBRm
        fVbS/9FdNtZxjkOfXO+4YmVe/E782QDbJ8HFzm01T6xwiewk+aKFSzqjQbAjEyUo
        jt4AOnSWbzWiPsBKIYJm4RPktslU5CiVI8DsENEgUlLq+AwaoSl2Sv4QEsECAwEA
        AaNTMFEwHQYDVR0OBBYEFCt0aEefsYisWkvEZiDjhKJoFQH1MB8GA1UdIwQYMBaA
        FCt0aEefsYisWkvEZiDjhKJoFQH1MA8GA1UdEwEB/wQFMAMBAf8wDQYJKoZIhvcN
        AQELBQADggEBAHFt13IskywT/+YDaag3iOqEXsyvqGugWHxkwgUzYlusbU3Iq/hD
        E1zsxQdnL1ewN7edQtppVllPKlm7zsSyZlvgLQZ3u1xQ/JATdZydmdysiEWWGmkm
        RVSLPbxzzLeK0a1asRu8KxmTLJVDRuFRQcnYfwvQSPqVCkOdxVj22bA0i+rTxJfI
        kAtDI5GNbIlnRqRjEu/XRrxI+02wQhKS3FnrSSS9kwH0wzvlT4ay48t8Ypk/QxVt
        QPzD71YLSCgjeMfUFLcrFHQtu1ygUcDNH6dDskM2t1xoG2LoSHqbCJGqzirYgH5K
        373dlMCOW+uHEb/n8DGrz1eFyYyZQibR9N4=
        -----END CERTIFICATE-----
        """

    /// A P-256 private key.
    package static let ecPrivateKeyC = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgI8lv2ml9XcWCRnPk
        M9MhAIuwA4yFYXwfDXEGgCM2n92hRANCAAQBNIHg533DT7ECJK972yB/UiUUW+Jf
        1qKBX8MuXp6H/3vKw1yEEk6AVXyW5i5D2HFx84gmoOxsDZplficJ704L
        -----END PRIVATE KEY-----
        """

    /// A self-signed certificate for `ecPrivateKeyC`.
    package static let ecCertificateC = """
        -----BEGIN CERTIFICATE-----
        MIIBeTCCAR6gAwIBAgIBAjAKBggqhkjOPQQDAjAaMRgwFgYDVQQDDA9lYy50ZXN0
        LmludmFsaWQwIBcNMjYxMTIyMDA0MjI1WhgPMjEyNjEwMjkwMDQyMjVaMBoxGDAW
        BgNVBAMMD2VjLnRlc3QuaW52YWxpZDBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IA
        BAE0geDnfcNPsQIkr3vbIH9SJRRb4l/WooFfwy5enof/e8rDXIQSToBVfJbmLkPY
        cXHziCag7GwNmmV+JwnvTgujUzBRMB0GA1UdDgQWBBQ4ifxP+kTaz5BI+ZW5+BDG
        8vZZxDAfBgNVHSMEGDAWgBQ4ifxP+kTaz5BI+ZW5+BDG8vZZxDAPBgNVHRMBAf8E
        BTADAQH/MAoGCCqGSM49BAMCA0kAMEYCIQDXv06uNUJ4/bF7NXHKhiI52lRnR5pG
        n+dlLnCs5+BbvQIhAOEpTLdy4DCXQ70uPO8bjk61ot4/aNyEld5UmHzLFRKB
        -----END CERTIFICATE-----
        """
}
