#!/usr/bin/python3
"""Locks or unlocks the default collection of the GNOME Keyring on the session bus (Scripts/with-keyring.sh).

    keyring-control.py lock
    keyring-control.py unlock < password

Locking uses the Secret Service's own Lock method. Unlocking a keyring normally shows a prompt, which a headless
machine cannot; GNOME Keyring's UnlockWithMasterPassword takes the password directly over a "plain" session. It is
Debian's /usr/bin/python3 with python3-dbus, on purpose: a virtualenv's python has no dbus module.
"""
import sys

import dbus

bus = dbus.SessionBus()
service_object = bus.get_object("org.freedesktop.secrets", "/org/freedesktop/secrets")
service = dbus.Interface(service_object, "org.freedesktop.Secret.Service")
collection = service.ReadAlias("default")
if collection == "/":
    sys.exit("keyring-control: the keyring has no default collection")

if sys.argv[1:] == ["lock"]:
    service.Lock([collection])
elif sys.argv[1:] == ["unlock"]:
    _, session = service.OpenSession("plain", dbus.String("", variant_level=1))
    password = dbus.ByteArray(sys.stdin.read().encode())
    internal = dbus.Interface(service_object, "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface")
    internal.UnlockWithMasterPassword(
        collection, dbus.Struct((session, dbus.ByteArray(b""), password, "text/plain"), signature="oayays")
    )
else:
    sys.exit("usage: keyring-control.py lock | unlock < password")
