{-# LANGUAGE DeriveGeneric, OverloadedStrings #-}
-- The real tier: a JSON workload, as an aeson user writes one (Debian's
-- libghc-aeson-dev): encode a batch of records,
-- parse it back both as typed records and as a generic Value, aggregate.
module Main (main) where
import Data.Aeson
import qualified Data.Aeson.KeyMap as KM
import qualified Data.ByteString.Lazy as BL
import qualified Data.Map.Strict as M
import qualified Data.Text as T
import qualified Data.Vector as V
import GHC.Generics (Generic)
import System.Environment (getArgs)

data Event = Event
  { eventId   :: !Int
  , service   :: !T.Text
  , latencyMs :: !Double
  , tags      :: [T.Text]
  , payload   :: M.Map T.Text Int
  } deriving (Show, Generic)

instance ToJSON Event
instance FromJSON Event

mkEvent :: Int -> Event
mkEvent i = Event
  { eventId = i
  , service = T.pack ("svc-" ++ show (i `mod` 37))
  , latencyMs = fromIntegral ((i * 7919) `mod` 100003) / 100
  , tags = [T.pack ("t" ++ show ((i + k) `mod` 11)) | k <- [0 .. i `mod` 4]]
  , payload = M.fromList [(T.pack ("k" ++ show k), i * k) | k <- [1 .. 1 + i `mod` 6]]
  }

main :: IO ()
main = do
  [ns, rounds] <- map read <$> getArgs
  let go :: Int -> M.Map T.Text (Int, Double) -> IO (M.Map T.Text (Int, Double))
      go 0 acc = return acc
      go r acc = do
        let bytes = encode (map mkEvent [r * ns .. r * ns + ns - 1])
        evs <- either fail return (eitherDecode bytes) :: IO [Event]
        val <- either fail return (eitherDecode bytes) :: IO Value
        let width = case val of
              Array v -> V.sum (V.map (\o -> case o of Object km -> KM.size km; _ -> 0) v)
              _ -> 0
            acc' = M.unionWith (\(a, b) (c, d) -> (a + c, b + d)) acc
                     (M.fromListWith (\(a, b) (c, d) -> (a + c, b + d))
                        [(service e, (sum (M.elems (payload e)), latencyMs e)) | e <- evs])
        putStrLn $ "round " ++ show r ++ ": " ++ show (BL.length bytes) ++ " bytes, "
                   ++ show (length evs) ++ " events, " ++ show width ++ " fields"
        go (r - 1) $! acc'
  total <- go rounds M.empty
  mapM_ (\(k, (n, l)) -> putStrLn (T.unpack k ++ " " ++ show n ++ " " ++ show (round l :: Int)))
        (take 5 (M.toList total))
