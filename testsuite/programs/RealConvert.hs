{-# LANGUAGE OverloadedStrings #-}
-- The real tier: a document converter, as a pandoc user writes one
-- (Debian's libghc-pandoc-dev): Markdown in, HTML5 and LaTeX out, a
-- signature of each printed so that runs can be compared. With ROUNDS,
-- the same conversion that many times (a program that works a while).
--   RealConvert FILE.md [ROUNDS]
module Main (main) where
import qualified Data.Text as T
import qualified Data.Text.IO as T
import Text.Pandoc
import System.Environment (getArgs)
import Data.Char (ord)

main :: IO ()
main = do
  args <- getArgs
  (path, rounds) <- case args of
    [p] -> pure (p, 1 :: Int)
    [p, n] -> pure (p, read n)
    _ -> fail "usage: RealConvert FILE.md [ROUNDS]"
  mapM_ (const (convert path)) [1 .. rounds]

-- One round: read, parse, render, print the signatures.
convert :: FilePath -> IO ()
convert path = do
  md <- T.readFile path
  r <- runIO $ do
    doc <- readMarkdown def { readerExtensions = pandocExtensions } md
    html <- writeHtml5String def doc
    tex <- writeLaTeX def doc
    return (doc, html, tex)
  (Pandoc _ blocks, html, tex) <- handleError r
  let sig t = T.foldl' (\h c -> (h * 33 + ord c) `mod` 1000000007) 5381 t
  putStrLn $ "blocks " ++ show (length blocks)
  putStrLn $ "html " ++ show (T.length html) ++ " " ++ show (sig html)
  putStrLn $ "latex " ++ show (T.length tex) ++ " " ++ show (sig tex)
