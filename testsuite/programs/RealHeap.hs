{-# LANGUAGE OverloadedStrings #-}
-- The real tier's heap for the debugger: a program built from Debian's
-- libghc-pandoc-dev and libghc-aeson-dev (no -g, tens of thousands of info
-- tables) that holds what a document service holds: the parsed document
-- (pandoc's AST), its HTML and LaTeX renderings as lazy Text, its JSON as a
-- lazy ByteString and as a generic aeson Value, and a Map from section title
-- to the section's blocks. It prints "ready" once all of it is built and
-- forced, then keeps it alive until its standard input closes, and prints
-- the same signatures again (so that a debugger that pauses it must leave
-- it unchanged).
--
--   RealHeap FILE.md [COPIES]
--
-- COPIES (default 1): parse the document this many times, each copy kept
-- (a bigger heap from the same input).
module Main (main) where

import Control.Exception (evaluate)
import Control.Monad (forM)
import Data.Aeson (Value, encode, eitherDecode)
import qualified Data.ByteString.Lazy as BL
import Data.Char (ord)
import qualified Data.Map.Strict as M
import qualified Data.Text as T
import qualified Data.Text.IO as T
import qualified Data.Text.Lazy as TL
import System.Environment (getArgs)
import System.IO
import Text.Pandoc

data Held = Held
  { heldDoc      :: Pandoc
  , heldHtml     :: TL.Text
  , heldTex      :: T.Text
  , heldJson     :: BL.ByteString
  , heldValue    :: Value
  , heldSections :: M.Map T.Text [Block]
  }

sig :: T.Text -> Int
sig = T.foldl' (\h c -> (h * 33 + ord c) `mod` 1000000007) 5381

sections :: [Block] -> M.Map T.Text [Block]
sections = go M.empty
  where
    go m (Header 1 _ title : rest) =
      let (body, more) = break isTop rest
      in go (M.insert (stringify' title) body m) more
    go m (_ : rest) = go m rest
    go m [] = m
    isTop (Header 1 _ _) = True
    isTop _ = False
    stringify' = T.concat . map inl
    inl (Str s) = s
    inl Space = " "
    inl _ = ""

build :: T.Text -> Int -> IO Held
build md i = do
  r <- runIO $ do
    doc <- readMarkdown def { readerExtensions = pandocExtensions } md
    html <- writeHtml5String def doc
    tex <- writeLaTeX def doc
    return (doc, html, tex)
  (doc@(Pandoc _ blocks), html, tex) <- handleError r
  let json = encode doc
  val <- either fail return (eitherDecode json) :: IO Value
  let held = Held doc (TL.fromChunks (T.chunksOf (64 + i) html)) tex json val (sections blocks)
  _ <- evaluate (summary held)
  return held

summary :: Held -> String
summary h =
  let Pandoc _ bs = heldDoc h
  in unwords [ "blocks", show (length bs)
             , "html", show (TL.length (heldHtml h)), show (sig (TL.toStrict (heldHtml h)))
             , "latex", show (T.length (heldTex h)), show (sig (heldTex h))
             , "json", show (BL.length (heldJson h)), show (BL.length (encode (heldValue h)))
             , "sections", show (M.size (heldSections h)) ]

main :: IO ()
main = do
  hSetBuffering stdout LineBuffering
  args <- getArgs
  (path, copies) <- case args of
    [p] -> return (p, 1)
    [p, n] -> return (p, read n)
    _ -> fail "usage: RealHeap FILE.md [COPIES]"
  md <- T.readFile path
  held <- forM [1 .. copies] (build md)
  mapM_ (putStrLn . summary) (take 1 held)
  putStrLn ("ready " ++ show copies)
  _ <- hGetContents stdin >>= \s -> length s `seq` return ()
  mapM_ (putStrLn . summary) (take 1 held)
  print (sum (map (M.size . heldSections) held))
