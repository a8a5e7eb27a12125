module Main (main) where

import Foreign.C.String (CString, withCString)

foreign import ccall safe "readEventlogMagic" readEventlogMagic :: CString -> IO ()

main :: IO ()
main = withCString "eventlog_socket.sock" readEventlogMagic
