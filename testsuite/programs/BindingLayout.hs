{-# LANGUAGE ExistentialQuantification #-}
-- BindingLayout: thunks and functions local to many top-level bindings of
-- two modules, kept live across heap censuses, so that -hi meets their
-- info tables. A -g build names each by DWARF (the Haskell binder and the
-- module of its compile unit); the same binary without its DWARF (strip
-- --strip-debug keeps every address) names it by the binding that holds
-- it in the code's layout: hi-binding-layout compares the two.
module Main (main) where

import BindingLayoutLib
import Control.Exception (evaluate)
import Control.Monad (forM_)
import Data.IORef
import System.Environment (getArgs)
import System.Mem (performMajorGC)

data Held = forall a. Held a

-- Each value in weak head normal form: its fields are the thunks and
-- functions the binding that made it built.
held :: a -> Held
held x = x `seq` Held x

collect :: Int -> [Held]
collect i =
  [ held (scaled i [i .. i + 3])
  , held (window 2 [i .. i + 5])
  , held (tally [i .. i + 4])
  , held (shifted i [1, 2, 3])
  , held (lazyPairs (i `mod` 5 + 1))
  , held (adder i)
  , held (localThunks i)
  , held (localFun i)
  ]
{-# NOINLINE collect #-}

localThunks :: Int -> (Int, [Int])
localThunks n = let a = n * n + 7
                    b = [a, a + n]
                in (a + 1, b)
{-# NOINLINE localThunks #-}

localFun :: Int -> Int -> Int
localFun n = \m -> m * n + length (show n)
{-# NOINLINE localFun #-}

main :: IO ()
main = do
  [rounds] <- map read <$> getArgs
  ref <- newIORef []
  forM_ [1 .. rounds :: Int] $ \r -> do
    forM_ [1 .. 2000] $ \i -> do
      let hs = collect (r * 10000 + i)
      mapM_ evaluate hs
      modifyIORef' ref (hs ++)
    performMajorGC
  held <- readIORef ref
  _ <- evaluate (length held)
  putStrLn ("held " ++ show (length held))
